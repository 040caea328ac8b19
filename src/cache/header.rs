//! What a compiled-code file must match before its code may run here: the
//! runtime version, the target and its CPU features, and every engine
//! setting that changes generated code. The file records them as named
//! values; loading compares them one by one and says which differs.

use crate::environ::error::{Error, Result};

/// The first bytes of every compiled-code file. The CR LF catches files
/// mangled by text-mode transfers, as PNG's magic does.
pub const MAGIC: &[u8; 8] = b"\0cwasm\r\n";

/// Version of the layout of the file (see the module documentation).
/// Bump it whenever the layout or the meaning of a field changes, or the
/// VMContext layout compiled code assumes (2: `VMFuncRef` holds its type,
/// and small signature ids are immediates; 3: the VMContext header holds a
/// copy of the stack limit; 4: large signature ids in the VMContext, no
/// longer relocations; 5: exception handler tables; 6: the wasm-to-host
/// trampolines of the module's function types, for builds without the
/// compiler; 7: callees inlined inside `try_table`, whose throws need a
/// runtime that looks for a handler at the throw's own call site; 8:
/// 64-bit loop addresses masked below 8 GiB, which needs the guarded
/// reservation's 64 KiB tail; 9: the frozen tables recorded, so that
/// loading skips their scan of every body, and `VMFuncRef::display`,
/// which `call_indirect` of a non-final type reads, and GC's trap codes;
/// 10: GC stack maps, and the spills of roots around calls they describe
/// (a development state); 11: GC heap objects as well: the store context's
/// heap fields, the VMContext's type displays, the GC builtins and four
/// trap codes).
pub const FORMAT_VERSION: u32 = 11;

/// The Cranelift release generating code (the workspace's requirement;
/// `compile::tests` keeps it in step):
/// a compiled-code file records it, so that code from another code
/// generator is compiled again rather than trusted to follow the same
/// conventions.
pub const CRANELIFT_VERSION: &str = "0.137";

/// Settings whose names start with this are CPU features: code that does
/// not use one runs on a CPU that has it, so only features the file needs
/// and the host lacks refuse the file.
pub(crate) const CPU_FEATURE_PREFIX: &str = "cpu.has_";

/// Refuses a file compiled for another target than `ours` (the loading
/// engine's fingerprint) says, naming both: checked before anything else
/// the file records, whose differences (CPU features, settings) would only
/// follow from that one. Targets are the same when their architecture and
/// system are (the code does not depend on the rest, and a triple given to
/// `Config::target` may be spelled without a vendor, say).
pub fn check_target(recorded: &[(String, String)], ours: &[(String, String)]) -> Result<()> {
    let target = |values: &[(String, String)]| values.iter().find(|(k, _)| k == TARGET).map(|(_, v)| v.clone());
    let same = |a: &str, b: &str| match (a.parse::<target_lexicon::Triple>(), b.parse::<target_lexicon::Triple>()) {
        (Ok(a), Ok(b)) => a.architecture == b.architecture && a.operating_system == b.operating_system,
        _ => a == b,
    };
    match (target(recorded), target(ours)) {
        (Some(theirs), Some(ours)) if !same(&theirs, &ours) => {
            let arch = |t: &str| t.split('-').next().unwrap_or_default().to_string();
            Err(Error::Invalid {
                message: format!(
                    "compiled module refused: it was compiled for {} ({theirs}), this is {} ({ours})",
                    arch(&theirs),
                    arch(&ours)
                ),
                offset: 0,
            })
        }
        _ => Ok(()),
    }
}

/// The name of the recorded target triple.
pub(crate) const TARGET: &str = "target";

/// Checks a file's recorded values against `ours` (the loading engine's
/// fingerprint), naming the first that differs; the target is
/// [`check_target`]'s.
pub fn check(recorded: &[(String, String)], ours: &[(String, String)]) -> Result<()> {
    check_target(recorded, ours)?;
    let refuse = |why: String| Err(Error::Invalid { message: format!("compiled module refused: {why}"), offset: 0 });
    for (key, value) in ours {
        let theirs = recorded.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        match theirs {
            Some(v) if v == value => {}
            Some(_) if key == TARGET => {}
            // A CPU feature the code does not use is no obstacle.
            Some("0") if key.starts_with(CPU_FEATURE_PREFIX) => {}
            Some(v) if key.starts_with(CPU_FEATURE_PREFIX) => {
                return refuse(format!("it needs the CPU feature {} ({v}), which this CPU lacks", &key[4..]));
            }
            Some(v) => return refuse(format!("it was compiled with {key} = {v}, this engine has {value}")),
            None => return refuse(format!("it does not say its {key} (this engine has {value})")),
        }
    }
    if let Some((key, value)) = recorded.iter().find(|(k, _)| !ours.iter().any(|(o, _)| o == k)) {
        return refuse(format!("it was compiled with {key} = {value}, which this engine does not know"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(t: &str) -> Vec<(String, String)> {
        vec![(TARGET.to_string(), t.to_string())]
    }

    #[test]
    fn targets_compare_by_architecture_and_system() {
        let arm = target("aarch64-unknown-linux-gnu");
        assert!(check(&arm, &target("aarch64-linux-gnu")).is_ok());
        assert!(check(&arm, &target("aarch64-unknown-linux-musl")).is_ok());
        let why = check(&arm, &target("x86_64-unknown-linux-gnu")).unwrap_err().to_string();
        assert!(
            why.contains("compiled for aarch64 (aarch64-unknown-linux-gnu), this is x86_64 (x86_64-unknown-linux-gnu)"),
            "{why}"
        );
        let why = check(&arm, &target("aarch64-apple-darwin")).unwrap_err().to_string();
        assert!(why.contains("this is aarch64 (aarch64-apple-darwin)"), "{why}");
    }
}
