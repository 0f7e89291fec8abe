//! `cargo run -p xtask -- check-artifacts <dir> [--doc <file.md>]`: checks every
//! `<dir>/<key>/horosvec.<key>.node` (the per-platform addons that scripts/build-platforms.sh
//! writes) with the `object` crate: object format and architecture match the key, the napi entry
//! symbol is exported, the dynamic dependencies are only the platform's C library and system
//! libraries (see [`allowed_dependency`]), and for the gnu builds the highest `GLIBC_x.y` symbol
//! version they need is at most [`GLIBC_FLOOR`]. Prints one line per artifact; with `--doc` it
//! rewrites the table between the `<!-- artifacts:begin -->` / `<!-- artifacts:end -->` markers of
//! that file (`--times target/cross/build-times.tsv` adds each key's last build time). Exits
//! non-zero when an artifact fails or is missing (`--allow-missing`: only when one fails).
use object::read::elf::ElfFile64;
use object::read::macho::{LoadCommandVariant, MachOFile64};
use object::{Architecture, BinaryFormat, Endianness, Object};
use std::path::Path;

/// The seven platform keys of the contract, in the order the table lists them.
pub const KEYS: [&str; 7] = [
    "linux-x64-gnu",
    "linux-x64-musl",
    "linux-arm64-gnu",
    "linux-arm64-musl",
    "darwin-x64",
    "darwin-arm64",
    "win32-x64-gnu",
];

/// The newest glibc symbol version a gnu build may need (RHEL 8, Debian 10, Ubuntu 18.10).
pub const GLIBC_FLOOR: (u32, u32) = (2, 28);

/// The napi-rs module entry point Node looks up after `dlopen`.
pub const ENTRY: &str = "napi_register_module_v1";

/// What a platform key promises about its binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    pub format: BinaryFormat,
    pub arch: Architecture,
    pub system: System,
}

/// Which C library / system the artifact may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    Glibc,
    Musl,
    MacOs,
    Windows,
}

/// The expectations for a key, or `None` for a key this checker does not know.
pub fn expected(key: &str) -> Option<Expect> {
    let (os, rest) = key.split_once('-')?;
    let (cpu, abi) = rest.split_once('-').unwrap_or((rest, ""));
    let arch = match cpu {
        "x64" => Architecture::X86_64,
        "arm64" => Architecture::Aarch64,
        _ => return None,
    };
    let (format, system) = match (os, abi) {
        ("linux", "gnu") => (BinaryFormat::Elf, System::Glibc),
        ("linux", "musl") => (BinaryFormat::Elf, System::Musl),
        ("darwin", "") => (BinaryFormat::MachO, System::MacOs),
        ("win32", "gnu" | "msvc") => (BinaryFormat::Pe, System::Windows),
        _ => return None,
    };
    Some(Expect {
        format,
        arch,
        system,
    })
}

/// Whether a dynamic dependency is acceptable for a platform: only what every machine of that
/// platform has without installing anything.
/// - glibc: the libraries glibc itself ships (libc, libm, libpthread, libdl, librt, the dynamic
///   loader) and GCC's `libgcc_s.so.1`, which Rust's unwinder uses on gnu targets and which every
///   glibc system has (glibc's own `pthread_cancel` loads it).
/// - musl: musl's single `libc.so` (it holds libm, libpthread and the loader too); `libgcc_s` is
///   not accepted, Alpine does not install it by default.
/// - macOS: `libSystem.B.dylib` (the C library, libm, libpthread, dyld's API) and the other
///   libraries in every macOS's dyld shared cache that Rust's std may name: `libiconv` (the
///   `libc` crate links it on Apple targets), `libcharset` (which zig's libiconv stub
///   re-exports), `libresolv`; no Homebrew path, no framework.
/// - Windows: DLLs that ship with Windows (kernel32, ntdll, msvcrt, the Universal CRT's
///   `api-ms-win-*` sets that zig's MinGW links, part of Windows since 10, bcrypt/bcryptprimitives, advapi32, ws2_32, userenv,
///   shell32, ole32, oleaut32, user32, secur32, crypt32, synchronization); no MinGW runtime DLL
///   (`libgcc_s_*`, `libwinpthread-1`, `libstdc++-6`) and no `VCRUNTIME140.dll` (the Visual C++
///   redistributable is not part of Windows), and not `node.exe`/`node.dll` (napi-rs 3 looks the
///   N-API functions up at run time).
pub fn allowed_dependency(system: System, name: &str) -> bool {
    match system {
        System::Glibc => {
            const GLIBC: [&str; 8] = [
                "libc.so.6",
                "libm.so.6",
                "libpthread.so.0",
                "libdl.so.2",
                "librt.so.1",
                "ld-linux-x86-64.so.2",
                "ld-linux-aarch64.so.1",
                "libgcc_s.so.1",
            ];
            GLIBC.contains(&name)
        }
        System::Musl => name == "libc.so" || name.starts_with("ld-musl-"),
        System::MacOs => matches!(
            name,
            "/usr/lib/libSystem.B.dylib"
                | "/usr/lib/libiconv.2.dylib"
                | "/usr/lib/libcharset.1.dylib"
                | "/usr/lib/libresolv.9.dylib"
        ),
        System::Windows => {
            let n = name.to_ascii_lowercase();
            const DLLS: [&str; 17] = [
                "kernel32.dll",
                "ntdll.dll",
                "msvcrt.dll",
                "ucrtbase.dll",
                "bcrypt.dll",
                "bcryptprimitives.dll",
                "advapi32.dll",
                "ws2_32.dll",
                "userenv.dll",
                "shell32.dll",
                "ole32.dll",
                "oleaut32.dll",
                "user32.dll",
                "secur32.dll",
                "crypt32.dll",
                "synchronization.dll",
                "kernelbase.dll",
            ];
            DLLS.contains(&n.as_str()) || n.starts_with("api-ms-win-")
        }
    }
}

/// `GLIBC_2.17` → `(2, 17)`; `GLIBC_2.2.5` → `(2, 2)` (the patch level never matters for the
/// floor); anything else (`GLIBC_PRIVATE`, `GCC_3.0`) → `None`.
pub fn glibc_version(name: &str) -> Option<(u32, u32)> {
    let v = name.strip_prefix("GLIBC_")?;
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().map_or(Some(0), |m| m.parse().ok())?;
    Some((major, minor))
}

/// What the binary says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Facts {
    pub format: Option<BinaryFormat>,
    pub arch: Option<Architecture>,
    pub exports_entry: bool,
    pub dependencies: Vec<String>,
    /// Highest `GLIBC_x.y` needed (ELF only).
    pub glibc_max: Option<(u32, u32)>,
    /// Lowest OS version the binary runs on (Mach-O `LC_BUILD_VERSION` minos), as "x.y".
    pub min_os: Option<String>,
    /// Mach-O: an `LC_CODE_SIGNATURE` (ad-hoc) is present; arm64 macOS refuses unsigned code.
    pub code_signed: bool,
    pub size: u64,
}

/// Reads the facts from the bytes of a binary.
pub fn inspect(data: &[u8]) -> Result<Facts, String> {
    let file = object::File::parse(data).map_err(|e| format!("not an object file: {e}"))?;
    let mut facts = Facts {
        format: Some(file.format()),
        arch: Some(file.architecture()),
        size: data.len() as u64,
        ..Facts::default()
    };
    let exports = file.exports().map_err(|e| format!("exports: {e}"))?;
    for export in exports {
        let export = export.map_err(|e| format!("export: {e}"))?;
        if let object::NameOrOrdinal::Name(name) = export.name() {
            let name = name
                .strip_prefix(b"_")
                .filter(|_| file.format() == BinaryFormat::MachO)
                .unwrap_or(name);
            if name == ENTRY.as_bytes() {
                facts.exports_entry = true;
            }
        }
    }
    let libs = file
        .import_libraries()
        .map_err(|e| format!("import libraries: {e}"))?;
    for lib in libs {
        let lib = lib.map_err(|e| format!("import library: {e}"))?;
        let name = String::from_utf8_lossy(lib.name()).into_owned();
        // PE names are case-insensitive (`kernel32.dll` and `KERNEL32.dll` are one DLL).
        if !facts
            .dependencies
            .iter()
            .any(|d| d.eq_ignore_ascii_case(&name))
        {
            facts.dependencies.push(name);
        }
    }
    match file.format() {
        BinaryFormat::Elf => facts.glibc_max = elf_glibc_max(data)?,
        BinaryFormat::MachO => (facts.min_os, facts.code_signed) = macho_info(data)?,
        _ => {}
    }
    Ok(facts)
}

fn elf_glibc_max(data: &[u8]) -> Result<Option<(u32, u32)>, String> {
    let elf = ElfFile64::<Endianness>::parse(data).map_err(|e| format!("ELF: {e}"))?;
    let endian = elf.endian();
    let sections = elf.elf_section_table();
    let Some((mut needs, link)) = sections
        .gnu_verneed(endian, data)
        .map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    let strings = sections
        .strings(endian, data, link)
        .map_err(|e| e.to_string())?;
    let mut max = None;
    while let Some((_need, mut aux)) = needs.next().map_err(|e| e.to_string())? {
        while let Some(a) = aux.next().map_err(|e| e.to_string())? {
            let name = a.name(endian, strings).map_err(|e| e.to_string())?;
            if let Some(v) = glibc_version(&String::from_utf8_lossy(name)) {
                max = max.max(Some(v));
            }
        }
    }
    Ok(max)
}

fn macho_info(data: &[u8]) -> Result<(Option<String>, bool), String> {
    let macho = MachOFile64::<Endianness>::parse(data).map_err(|e| format!("Mach-O: {e}"))?;
    let endian = macho.endian();
    let mut commands = macho.macho_load_commands().map_err(|e| e.to_string())?;
    let mut min_os = None;
    let mut signed = false;
    while let Some(cmd) = commands.next().map_err(|e| e.to_string())? {
        signed |= cmd.cmd() == object::macho::LC_CODE_SIGNATURE;
        let version = match cmd.variant().map_err(|e| e.to_string())? {
            LoadCommandVariant::BuildVersion(b, _) => b.minos.get(endian),
            LoadCommandVariant::VersionMin(v) => v.version.get(endian),
            _ => continue,
        };
        min_os.get_or_insert_with(|| {
            macho_version(version.major(), version.minor(), version.update())
        });
    }
    Ok((min_os, signed))
}

/// A Mach-O X.Y.Z version as text; the patch is shown only when non-zero.
pub fn macho_version(x: u16, y: u8, z: u8) -> String {
    if z == 0 {
        format!("{x}.{y}")
    } else {
        format!("{x}.{y}.{z}")
    }
}

/// Every reason the artifact does not meet its key's promises (empty: it passes).
pub fn problems(expect: &Expect, facts: &Facts) -> Vec<String> {
    let mut out = Vec::new();
    if facts.format != Some(expect.format) {
        out.push(format!(
            "format {:?}, want {:?}",
            facts.format, expect.format
        ));
    }
    if facts.arch != Some(expect.arch) {
        out.push(format!(
            "architecture {:?}, want {:?}",
            facts.arch, expect.arch
        ));
    }
    if !facts.exports_entry {
        out.push(format!("{ENTRY} not exported"));
    }
    for dep in &facts.dependencies {
        if !allowed_dependency(expect.system, dep) {
            out.push(format!("dependency {dep} not allowed"));
        }
    }
    if expect.system == System::MacOs && expect.arch == Architecture::Aarch64 && !facts.code_signed
    {
        out.push("no code signature (arm64 macOS kills unsigned code)".into());
    }
    match (expect.system, facts.glibc_max) {
        (System::Glibc, Some(v)) if v > GLIBC_FLOOR => out.push(format!(
            "needs GLIBC_{}.{} > {}.{}",
            v.0, v.1, GLIBC_FLOOR.0, GLIBC_FLOOR.1
        )),
        (System::Glibc, None) => out.push("no GLIBC symbol versions found".into()),
        (System::Musl, Some(v)) => out.push(format!("musl build needs GLIBC_{}.{}", v.0, v.1)),
        _ => {}
    }
    out
}

fn format_name(f: Option<BinaryFormat>) -> &'static str {
    match f {
        Some(BinaryFormat::Elf) => "ELF",
        Some(BinaryFormat::MachO) => "Mach-O",
        Some(BinaryFormat::Pe) => "PE",
        Some(_) => "other",
        None => "?",
    }
}

fn arch_name(a: Option<Architecture>) -> &'static str {
    match a {
        Some(Architecture::X86_64) => "x86-64",
        Some(Architecture::Aarch64) => "aarch64",
        Some(_) => "other",
        None => "?",
    }
}

/// One checked (or missing) artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    /// `None`: no binary; `Some(Err)`: it could not be read or parsed.
    pub facts: Option<Result<Facts, String>>,
    pub problems: Vec<String>,
    /// The last build's wall time (scripts/build-platforms.sh's `target/cross/build-times.tsv`).
    pub build_secs: Option<u64>,
}

impl Row {
    pub fn ok(&self) -> bool {
        matches!(self.facts, Some(Ok(_))) && self.problems.is_empty()
    }

    /// The floor column: glibc for gnu, the minimum macOS for darwin, "—" otherwise.
    fn floor(f: &Facts) -> String {
        match (f.glibc_max, &f.min_os) {
            (Some((a, b)), _) => format!("GLIBC_{a}.{b}"),
            (None, Some(m)) if f.code_signed => format!("macOS {m}, ad-hoc signed"),
            (None, Some(m)) => format!("macOS {m}"),
            _ => "—".into(),
        }
    }

    /// The one line the checker prints.
    pub fn line(&self) -> String {
        match &self.facts {
            None => format!(
                "[artifacts] {}: MISSING (no horosvec.{}.node)",
                self.key, self.key
            ),
            Some(Err(e)) => format!("[artifacts] {}: FAIL {e}", self.key),
            Some(Ok(f)) => format!(
                "[artifacts] {}: {} {} {} KiB, {} {}, floor {}, deps [{}]{}",
                self.key,
                if self.problems.is_empty() {
                    "ok"
                } else {
                    "FAIL"
                },
                format_name(f.format),
                f.size / 1024,
                arch_name(f.arch),
                if f.exports_entry {
                    "entry exported"
                } else {
                    "NO entry"
                },
                Row::floor(f),
                f.dependencies.join(", "),
                if self.problems.is_empty() {
                    String::new()
                } else {
                    format!(": {}", self.problems.join("; "))
                },
            ),
        }
    }
}

/// The markdown table of all rows.
pub fn render_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| key | format, arch | size | `napi_register_module_v1` | dynamic dependencies | floor | checks | build |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let build = r.build_secs.map_or("—".to_string(), |s| format!("{s} s"));
        let line = match &r.facts {
            None => format!("| {} | — | — | — | — | — | not built | — |\n", r.key),
            Some(Err(e)) => format!("| {} | — | — | — | — | — | FAIL: {e} | {build} |\n", r.key),
            Some(Ok(f)) => format!(
                "| {} | {} {} | {} KiB | {} | {} | {} | {} | {build} |\n",
                r.key,
                format_name(f.format),
                arch_name(f.arch),
                f.size / 1024,
                if f.exports_entry {
                    "exported"
                } else {
                    "**missing**"
                },
                if f.dependencies.is_empty() {
                    "none".to_string()
                } else {
                    f.dependencies
                        .iter()
                        .map(|d| format!("`{d}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                Row::floor(f),
                if r.problems.is_empty() {
                    "pass".to_string()
                } else {
                    format!("FAIL: {}", r.problems.join("; "))
                },
            ),
        };
        s.push_str(&line);
    }
    s
}

pub const BEGIN: &str =
    "<!-- artifacts:begin (written by `cargo run -p xtask -- check-artifacts`) -->";
pub const END: &str = "<!-- artifacts:end -->";

/// Replaces the text between the markers (they must both be there, BEGIN first).
pub fn splice(doc: &str, table: &str) -> Result<String, String> {
    let b = doc.find(BEGIN).ok_or("begin marker missing")?;
    let e = doc[b..].find(END).ok_or("end marker missing")? + b;
    Ok(format!("{}{BEGIN}\n{table}{}", &doc[..b], &doc[e..]))
}

/// Checks one platform dir's binary.
pub fn check(dir: &Path, key: &str) -> Row {
    let path = dir.join(key).join(format!("horosvec.{key}.node"));
    let Some(expect) = expected(key) else {
        return Row {
            key: key.into(),
            facts: Some(Err(format!("unknown key {key}"))),
            problems: vec![],
            build_secs: None,
        };
    };
    let facts = match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(Err(format!("{}: {e}", path.display()))),
        Ok(data) => Some(inspect(&data)),
    };
    let problems = match &facts {
        Some(Ok(f)) => problems(&expect, f),
        _ => vec![],
    };
    Row {
        key: key.into(),
        facts,
        problems,
        build_secs: None,
    }
}

/// `key<TAB>seconds<TAB>date` lines → the seconds for `key` (the last line wins).
pub fn build_time(tsv: &str, key: &str) -> Option<u64> {
    tsv.lines().rev().find_map(|l| {
        let mut f = l.split('\t');
        (f.next()? == key).then(|| f.next()?.parse().ok())?
    })
}

/// The subcommand: `check-artifacts <dir> [--doc FILE] [--times TSV] [--allow-missing] [key ...]`.
pub fn run(args: &[String]) -> Result<bool, String> {
    let mut dir = None;
    let mut doc = None;
    let mut allow_missing = false;
    let mut times = None;
    let mut keys = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--doc" => doc = Some(it.next().ok_or("--doc needs a file")?.clone()),
            "--allow-missing" => allow_missing = true,
            "--times" => times = Some(it.next().ok_or("--times needs a file")?.clone()),
            _ if dir.is_none() => dir = Some(a.clone()),
            _ => keys.push(a.clone()),
        }
    }
    let dir = dir.ok_or(
        "usage: check-artifacts <dir> [--doc FILE] [--times TSV] [--allow-missing] [key ...]",
    )?;
    if keys.is_empty() {
        keys = KEYS.iter().map(|k| k.to_string()).collect();
    }
    let tsv = times
        .and_then(|t| std::fs::read_to_string(t).ok())
        .unwrap_or_default();
    let rows: Vec<Row> = keys
        .iter()
        .map(|k| Row {
            build_secs: build_time(&tsv, k),
            ..check(Path::new(&dir), k)
        })
        .collect();
    for r in &rows {
        println!("{}", r.line());
    }
    let failed = rows
        .iter()
        .filter(|r| !(r.ok() || allow_missing && r.facts.is_none()))
        .count();
    let checked = rows.iter().filter(|r| r.facts.is_some()).count();
    println!(
        "[artifacts] {} checked, {} passed, {failed} failed",
        checked,
        rows.iter().filter(|r| r.ok()).count()
    );
    if let Some(doc) = doc {
        let text = std::fs::read_to_string(&doc).map_err(|e| format!("{doc}: {e}"))?;
        let new = splice(&text, &render_table(&rows))?;
        std::fs::write(&doc, new).map_err(|e| format!("{doc}: {e}"))?;
        println!("[artifacts] table written to {doc}");
    }
    Ok(failed == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(
        format: BinaryFormat,
        arch: Architecture,
        deps: &[&str],
        glibc: Option<(u32, u32)>,
    ) -> Facts {
        Facts {
            format: Some(format),
            arch: Some(arch),
            exports_entry: true,
            dependencies: deps.iter().map(|d| d.to_string()).collect(),
            glibc_max: glibc,
            min_os: None,
            code_signed: false,
            size: 2048,
        }
    }

    #[test]
    fn every_key_has_expectations() {
        for k in KEYS {
            assert!(expected(k).is_some(), "{k}");
        }
        let e = expected("linux-arm64-musl").unwrap();
        assert_eq!(
            (e.format, e.arch, e.system),
            (BinaryFormat::Elf, Architecture::Aarch64, System::Musl)
        );
        assert_eq!(expected("win32-x64-msvc").unwrap().format, BinaryFormat::Pe);
        assert_eq!(expected("darwin-arm64").unwrap().system, System::MacOs);
        assert!(expected("linux-riscv64-gnu").is_none());
        assert!(expected("freebsd-x64").is_none());
    }

    #[test]
    fn glibc_versions_parse_and_order() {
        assert_eq!(glibc_version("GLIBC_2.17"), Some((2, 17)));
        assert_eq!(glibc_version("GLIBC_2.2.5"), Some((2, 2)));
        assert_eq!(glibc_version("GLIBC_2"), Some((2, 0)));
        assert_eq!(glibc_version("GLIBC_PRIVATE"), None);
        assert_eq!(glibc_version("GCC_3.0"), None);
        assert!(glibc_version("GLIBC_2.28").unwrap() <= GLIBC_FLOOR);
        assert!(glibc_version("GLIBC_2.29").unwrap() > GLIBC_FLOOR);
        assert!(glibc_version("GLIBC_2.3").unwrap() < glibc_version("GLIBC_2.28").unwrap());
    }

    #[test]
    fn dependency_sets_per_platform() {
        assert!(allowed_dependency(System::Glibc, "libc.so.6"));
        assert!(allowed_dependency(System::Glibc, "libgcc_s.so.1"));
        assert!(!allowed_dependency(System::Glibc, "libstdc++.so.6"));
        assert!(!allowed_dependency(System::Glibc, "libssl.so.3"));
        assert!(allowed_dependency(System::Musl, "libc.so"));
        assert!(!allowed_dependency(System::Musl, "libc.so.6"));
        assert!(!allowed_dependency(System::Musl, "libgcc_s.so.1"));
        assert!(allowed_dependency(
            System::MacOs,
            "/usr/lib/libSystem.B.dylib"
        ));
        assert!(!allowed_dependency(
            System::MacOs,
            "/opt/homebrew/lib/libomp.dylib"
        ));
        assert!(allowed_dependency(System::Windows, "KERNEL32.dll"));
        assert!(allowed_dependency(
            System::Windows,
            "api-ms-win-core-synch-l1-2-0.dll"
        ));
        assert!(!allowed_dependency(System::Windows, "libgcc_s_seh-1.dll"));
        assert!(!allowed_dependency(System::Windows, "VCRUNTIME140.dll"));
        assert!(!allowed_dependency(System::Windows, "node.exe"));
    }

    #[test]
    fn problems_name_each_broken_promise() {
        let gnu = expected("linux-x64-gnu").unwrap();
        let good = facts(
            BinaryFormat::Elf,
            Architecture::X86_64,
            &["libc.so.6", "libm.so.6"],
            Some((2, 28)),
        );
        assert!(problems(&gnu, &good).is_empty());
        let mut bad = facts(
            BinaryFormat::Elf,
            Architecture::Aarch64,
            &["libc.so.6", "libfoo.so"],
            Some((2, 34)),
        );
        bad.exports_entry = false;
        let p = problems(&gnu, &bad);
        assert_eq!(p.len(), 4, "{p:?}");
        assert!(p[0].starts_with("architecture"));
        assert!(p.iter().any(|s| s.contains("libfoo.so")));
        assert!(p.iter().any(|s| s.contains("GLIBC_2.34")));
        let musl = expected("linux-x64-musl").unwrap();
        assert_eq!(
            problems(
                &musl,
                &facts(
                    BinaryFormat::Elf,
                    Architecture::X86_64,
                    &["libc.so"],
                    Some((2, 17))
                )
            )
            .len(),
            1
        );
        let mac = expected("darwin-arm64").unwrap();
        let mut elf = facts(BinaryFormat::Elf, Architecture::Aarch64, &[], None);
        elf.code_signed = true;
        assert_eq!(
            problems(&mac, &elf),
            vec!["format Some(Elf), want MachO".to_string()]
        );
        let unsigned = facts(
            BinaryFormat::MachO,
            Architecture::Aarch64,
            &["/usr/lib/libSystem.B.dylib"],
            None,
        );
        assert_eq!(problems(&mac, &unsigned).len(), 1);
        let mac_x64 = expected("darwin-x64").unwrap();
        let x64 = facts(BinaryFormat::MachO, Architecture::X86_64, &[], None);
        assert!(
            problems(&mac_x64, &x64).is_empty(),
            "x64 macOS runs unsigned code"
        );
    }

    #[test]
    fn macho_versions_print_as_dotted() {
        assert_eq!(macho_version(11, 0, 0), "11.0");
        assert_eq!(macho_version(10, 12, 0), "10.12");
        assert_eq!(macho_version(10, 13, 2), "10.13.2");
    }

    #[test]
    fn table_and_splice() {
        let rows = vec![
            Row {
                key: "linux-x64-gnu".into(),
                facts: Some(Ok(facts(
                    BinaryFormat::Elf,
                    Architecture::X86_64,
                    &["libc.so.6"],
                    Some((2, 17)),
                ))),
                problems: vec![],
                build_secs: Some(143),
            },
            Row {
                key: "darwin-x64".into(),
                facts: None,
                problems: vec![],
                build_secs: None,
            },
        ];
        assert!(rows[0].ok() && !rows[1].ok());
        let t = render_table(&rows);
        assert!(t.contains("| linux-x64-gnu | ELF x86-64 | 2 KiB | exported | `libc.so.6` | GLIBC_2.17 | pass | 143 s |"), "{t}");
        assert!(t.contains("| darwin-x64 | — | — | — | — | — | not built | — |"));
        assert!(rows[1].line().contains("MISSING"));
        let doc = format!("# A\n{BEGIN}\nold\n{END}\ntail\n");
        let out = splice(&doc, "new\n").unwrap();
        assert_eq!(out, format!("# A\n{BEGIN}\nnew\n{END}\ntail\n"));
        assert_eq!(splice(&out, "new\n").unwrap(), out, "idempotent");
        assert!(splice("no markers", "x").is_err());
    }

    #[test]
    fn build_times_read_the_last_line_per_key() {
        let tsv =
            "linux-x64-gnu\t143\t2026-12-02T02:40:00Z\ndarwin-x64\t219\tx\nlinux-x64-gnu\t150\ty\n";
        assert_eq!(build_time(tsv, "linux-x64-gnu"), Some(150));
        assert_eq!(build_time(tsv, "darwin-x64"), Some(219));
        assert_eq!(build_time(tsv, "darwin-arm64"), None);
        assert_eq!(build_time("garbage", "darwin-x64"), None);
    }

    #[test]
    fn inspect_refuses_what_is_not_an_object() {
        assert!(inspect(b"not a binary").is_err());
    }
}
